<?xml version="1.0" encoding="UTF-8"?>
<!-- NOTICE of the distribution from its CycloneDX SBOM (target/eventindex-VERSION.cdx.xml): one line per third-party
     component that lib/ ships, with the licences its POM declares (SPDX ids where CycloneDX knows them). The
     distribution's build runs it (maven-antrun-plugin, xslt) before the tarball; PackagesIT checks that every jar of
     lib/ is listed. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:cdx="http://cyclonedx.org/schema/bom/1.6">
  <xsl:output method="text" encoding="UTF-8"/>
  <xsl:param name="version"/>
  <xsl:variable name="nl" select="'&#10;'"/>

  <xsl:template match="/">
    <xsl:text>EventIndex collection </xsl:text><xsl:value-of select="$version"/><xsl:value-of select="$nl"/>
    <xsl:text>Licensed under the Apache License, Version 2.0 (LICENSE).</xsl:text><xsl:value-of select="$nl"/>
    <xsl:value-of select="$nl"/>
    <xsl:text>lib/ also holds the third-party components below (group:artifact version: licences as their POMs declare
them), also inside lib/eventindex-producer.jar where the producer uses them. The full list with hashes and package
URLs is the SBOM, sbom/eventindex-</xsl:text><xsl:value-of select="$version"/><xsl:text>.cdx.json (CycloneDX).</xsl:text>
    <xsl:value-of select="$nl"/><xsl:value-of select="$nl"/>
    <xsl:for-each select="/cdx:bom/cdx:components/cdx:component[cdx:group != 'org.eventindex']">
      <xsl:sort select="cdx:group"/>
      <xsl:sort select="cdx:name"/>
      <xsl:value-of select="cdx:group"/><xsl:text>:</xsl:text><xsl:value-of select="cdx:name"/>
      <xsl:text> </xsl:text><xsl:value-of select="cdx:version"/><xsl:text>: </xsl:text>
      <xsl:choose>
        <xsl:when test="cdx:licenses/*">
          <xsl:for-each select="cdx:licenses/*">
            <xsl:if test="position() &gt; 1"><xsl:text>; </xsl:text></xsl:if>
            <xsl:choose>
              <xsl:when test="self::cdx:expression"><xsl:value-of select="."/></xsl:when>
              <xsl:when test="cdx:id"><xsl:value-of select="cdx:id"/></xsl:when>
              <xsl:otherwise>
                <xsl:value-of select="normalize-space(cdx:name)"/>
                <xsl:if test="cdx:url"><xsl:text> (</xsl:text><xsl:value-of select="normalize-space(cdx:url)"/><xsl:text>)</xsl:text></xsl:if>
              </xsl:otherwise>
            </xsl:choose>
          </xsl:for-each>
        </xsl:when>
        <xsl:otherwise><xsl:text>no licence in its POM</xsl:text></xsl:otherwise>
      </xsl:choose>
      <xsl:value-of select="$nl"/>
    </xsl:for-each>
  </xsl:template>
</xsl:stylesheet>
